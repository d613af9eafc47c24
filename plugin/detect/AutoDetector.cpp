// The auto detector: the rule and the measured warm-up of isc/detect/AutoDetector.h.
#include "isc/detect/AutoDetector.h"

#include "isc/detect/Registry.h"
#include "isc/gl/Context.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <set>

namespace isc {

namespace {

using Clock = std::chrono::steady_clock;


// One line of an error message (a driver's compile log has several), at most 200 characters.
std::string brief(const std::string& message) {
    std::string line;
    for (char ch : message) {
        if (ch == '\n' || ch == '\r') {
            if (!line.empty() && line.back() != ' ') line += ' ';
        } else {
            line += ch;
        }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line.size() > 200 ? line.substr(0, 197) + "..." : line;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::vector<std::string> splitNames(std::string_view list) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= list.size()) {
        std::size_t end = list.find(',', pos);
        if (end == std::string_view::npos) end = list.size();
        std::string_view item = list.substr(pos, end - pos);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) out.emplace_back(item);
        pos = end + 1;
    }
    return out;
}

std::string formatMs(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, ms < 10.0 ? "%.3g ms" : "%.1f ms", ms);
    return buf;
}

// The rule for a candidate not worth a round's calls: more than 10 times and 5 ms slower.
bool hopelessAgainst(double ms, double fastestMs) { return ms > 10.0 * fastestMs && ms > fastestMs + 5.0; }

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

bool isSoftwareRenderer(std::string_view renderer) {
    static constexpr std::array<std::string_view, 5> names{"llvmpipe", "softpipe", "swrast", "SwiftShader",
                                                           "Software Rasterizer"};
    return std::any_of(names.begin(), names.end(),
                       [&](std::string_view n) { return renderer.find(n) != std::string_view::npos; });
}

struct AutoDetector::Impl {
    struct Candidate {
        std::string name;
        bool usesGl = false;
        std::unique_ptr<Detector> detector;  // null when destroyed after a decision
        std::function<Result<std::unique_ptr<Detector>>()> make;  // for a later round
        std::vector<double> timedMs;  // wall time of the timed calls of this round
        bool warm = false;            // its first call with pairs of this round has run (not timed)
        int hopelessRun = 0;          // its last timed calls of this round that were hopeless, in a row
    };
    std::vector<Candidate> candidates;  // registry order; [0] answers during a round
    AutoTuning tuning;
    bool decided = false;
    std::size_t chosen = 0;
    std::string reason;
    std::string notes;   // ", peel left out (...)": candidates dropped, appended to the reason
    std::size_t rotation = 0;
    std::string glNote;  // "llvmpipe (...): software GL" / "NVIDIA H100...: hardware GL" / "no current GL context"
    DetectionOutput scratch;
    std::vector<double> roundWork;  // candidate pairs of this round's timed calls
    double decidedWork = 0.0;       // median candidate pairs of the calls the choice rests on
    double decidedMs = 0.0;         // the choice's median wall time in that round
    std::vector<double> recentMs;   // the choice's last calls with pairs since (at most 3)
    std::vector<AutoDetector::Timing> decidedTimings;  // every candidate's of the deciding round
    std::vector<AutoDetector::Timing> roundDropped;    // this round's, for candidates dropped during it
    int rounds = 0;                 // measuring rounds after the first
    std::string incumbent;          // during a later round: the choice it may replace
    std::string history;            // ", first cpu at 12 pairs, ..." for the reason

    double now() const {
        if (tuning.clockMs) return tuning.clockMs();
        return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
    }

    void decide() {
        std::size_t best = 0;
        double bestMs = 0.0;
        std::string medians;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const double m = median(candidates[i].timedMs);
            medians += (medians.empty() ? "" : ", ") + candidates[i].name + " " + formatMs(m);
            if (i == 0 || m < bestMs) best = i, bestMs = m;
        }
        for (const AutoDetector::Timing& t : roundDropped)  // left this round, its medians said too
            medians += ", " + t.name + " " + formatMs(t.medianMs) + " (left out)";
        // Hysteresis: a later round replaces the choice only when another is clearly faster.
        std::string kept;
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (!incumbent.empty() && candidates[i].name == incumbent && best != i &&
                bestMs > (1.0 - tuning.switchMargin) * median(candidates[i].timedMs)) {
                kept = ", kept " + incumbent + " (not " + std::to_string(int(tuning.switchMargin * 100.0 + 0.5)) +
                       " % slower)";
                best = i;
            }
        chosen = best;
        decided = true;
        decidedWork = median(roundWork);
        decidedMs = median(candidates[chosen].timedMs);
        recentMs.clear();
        decidedTimings.clear();
        for (const Candidate& c : candidates)
            if (!c.timedMs.empty())
                decidedTimings.push_back({c.name, median(c.timedMs), static_cast<int>(c.timedMs.size())});
        decidedTimings.insert(decidedTimings.end(), roundDropped.begin(), roundDropped.end());
        roundDropped.clear();
        char work[64];
        std::snprintf(work, sizeof work, "%.0f", decidedWork);
        // Free the others (GL buffers, caches); a later round makes them again, except those
        // more than 10 times and 5 ms slower than the choice: never worth a round's calls again
        // (said in this decision's line).
        const std::string chosenName = candidates[chosen].name;
        for (std::size_t i = candidates.size(); i-- > 0;) {
            if (i == chosen) continue;
            candidates[i].detector.reset();
            const double m = median(candidates[i].timedMs);
            if (hopelessAgainst(m, decidedMs))
                drop(i, "more than 10x slower than " + chosenName + " at " + work + " pairs, " + formatMs(m));
        }
        for (std::size_t i = 0; i < candidates.size(); ++i)
            if (candidates[i].name == chosenName) chosen = i;
        reason = glNote + notes + ", fastest by median wall time over " + std::to_string(tuning.warmupCalls) +
                 " calls with pairs (" + medians + "; " + work + " candidate pairs a call)" + kept;
        if (rounds > 0) reason += ", measuring round " + std::to_string(rounds + 1) + history;
        history += std::string(history.empty() ? ", after " : ", ") + chosenName + " at " + work + " pairs " +
                   formatMs(decidedMs);
        incumbent.clear();
    }

    // A new measuring round when the choice's own calls got dearer or cheaper: the median of
    // its last 3 calls with pairs beyond remeasureAt times, or below 1 / remeasureAt of, its
    // median in the round that chose it (the scene's work changed, whatever its pair count).
    bool wantsRound() const {
        if (!decided || candidates.size() < 2 || tuning.remeasureAt <= 1.0 || rounds >= tuning.remeasureMax) return false;
        if (recentMs.size() < 3 || !(decidedMs > 0.0)) return false;
        const double now = median(recentMs);
        return now > tuning.remeasureAt * decidedMs || now * tuning.remeasureAt < decidedMs;
    }

    // Starts a round: every candidate made again (one that cannot be is left out, said).
    void startRound() {
        incumbent = candidates[chosen].name;
        ++rounds;
        decided = false;
        roundWork.clear();
        recentMs.clear();
        roundDropped.clear();
        for (std::size_t i = candidates.size(); i-- > 0;) {
            Candidate& c = candidates[i];
            c.timedMs.clear();
            c.warm = false;
            c.hopelessRun = 0;
            if (c.detector) continue;
            auto made = c.make ? c.make() : fail("no way to make it again");
            if (made) {
                c.detector = std::move(*made);
            } else {
                drop(i, "failed to start again: " + brief(made.error().message));
            }
        }
        if (candidates.size() == 1) {
            decided = true;
            chosen = 0;
            reason = glNote + notes + ", " + candidates[0].name + " is the only exact detector left";
        }
    }

    void drop(std::size_t i, const std::string& why) {
        notes += ", " + candidates[i].name + " left out (" + why + ")";
        if (!decided && !candidates[i].timedMs.empty())  // during a round: its timing stays in the record
            roundDropped.push_back({candidates[i].name, median(candidates[i].timedMs),
                                    static_cast<int>(candidates[i].timedMs.size())});
        candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(i));
    }

    // decide()'s rule for a hopeless candidate, on one measuring call: timed more than 10 times
    // and 5 ms slower than the fastest candidate timed on the same input. Twice in a row, it
    // leaves the round at once instead of after its last timed call (cinder took 200-360 ms a
    // call on the H200's touching 100-bunny pile, where the others took under 3 ms); once is not
    // enough: a GPU detector's first timed call on a deforming pile can still be cold (peel 18.5
    // ms against cpu's 1.02, then under 1 ms; docs/demos.md).
    std::string hopeless(const std::vector<std::pair<std::size_t, double>>& timedNow, double ms,
                         std::size_t pairs) const {
        std::size_t fastest = timedNow.front().first;
        double fastestMs = timedNow.front().second;
        for (const auto& [k, t] : timedNow)
            if (t < fastestMs) fastest = k, fastestMs = t;
        if (!hopelessAgainst(ms, fastestMs)) return {};
        return "more than 10x slower than " + candidates[fastest].name + " on the same call, " + formatMs(ms) +
               " against " + formatMs(fastestMs) + " at " + std::to_string(pairs) + " pairs";
    }
};

AutoDetector::AutoDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AutoDetector::~AutoDetector() = default;

bool AutoDetector::usesGl() const {
    if (impl_->decided) return impl_->candidates[impl_->chosen].usesGl;
    return std::any_of(impl_->candidates.begin(), impl_->candidates.end(), [](const auto& c) { return c.usesGl; });
}

bool AutoDetector::needsClosedMeshes() const {
    return impl_->candidates[impl_->decided ? impl_->chosen : 0].detector->needsClosedMeshes();
}

std::vector<DetectorDebugView> AutoDetector::debugViews() const {
    return impl_->candidates[impl_->decided ? impl_->chosen : 0].detector->debugViews();
}

bool AutoDetector::decided() const { return impl_->decided; }

std::string_view AutoDetector::current() const { return impl_->candidates[impl_->decided ? impl_->chosen : 0].name; }

const std::string& AutoDetector::reason() const { return impl_->reason; }

std::string AutoDetector::describe() const {
    if (impl_->decided) return "auto -> " + std::string(current()) + " (" + impl_->reason + ")";
    std::vector<std::string> names;
    for (const auto& c : impl_->candidates) names.push_back(c.name);
    return "auto -> measuring " + joined(names) + " (" + impl_->reason + ")";
}

std::vector<AutoDetector::Timing> AutoDetector::timings() const {
    if (impl_->decided && !impl_->decidedTimings.empty()) return impl_->decidedTimings;  // dropped ones too
    std::vector<Timing> out;
    for (const auto& c : impl_->candidates)
        if (!c.timedMs.empty()) out.push_back({c.name, median(c.timedMs), static_cast<int>(c.timedMs.size())});
    return out;
}

Result<void> AutoDetector::detect(const Scene& scene, std::span<const ObjectPair> candidates, DetectionOutput& out) {
    Impl& m = *impl_;
    if (m.decided) {
        const double t = m.now();
        Result<void> r = m.candidates[m.chosen].detector->detect(scene, candidates, out);
        if (r && !candidates.empty()) {
            m.recentMs.push_back(m.now() - t);
            if (m.recentMs.size() > 3) m.recentMs.erase(m.recentMs.begin());
            if (m.wantsRound()) m.startRound();  // from the next call on
        }
        return r;
    }
    if (candidates.empty()) return m.candidates[0].detector->detect(scene, candidates, out);

    // A measuring call: every candidate on this input; the first one's output is returned.
    // Start with a different candidate each call so that none always runs on cold caches.
    const double t0 = m.now();
    const std::size_t n = m.candidates.size();
    const std::size_t rotation = m.rotation++;
    std::vector<std::size_t> unservedBy;
    std::vector<std::pair<std::size_t, std::string>> failed;
    bool timed = false;
    std::vector<std::pair<std::size_t, double>> timedNow;  // (candidate, ms) timed on this call
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (k + rotation) % n;
        Impl::Candidate& c = m.candidates[i];
        DetectionOutput& target = i == 0 ? out : m.scratch;
        const double tc = m.now();
        if (auto r = c.detector->detect(scene, candidates, target); !r) {
            // A candidate that fails (a driver that rejects its shaders, a GPU limit) drops
            // out with its reason; the call fails only when none is left.
            failed.push_back({i, brief(r.error().message)});
            continue;
        }
        const double ms = m.now() - tc;
        if (!target.unserved.empty() && i != 0) unservedBy.push_back(i);
        if (c.warm) c.timedMs.push_back(ms), timed = true, timedNow.emplace_back(i, ms);
        c.warm = true;
    }
    if (timed) m.roundWork.push_back(double(candidates.size()));
    // A candidate that cannot serve every pair is not comparable (and the caller would run
    // cpu for the rest): it drops out. Highest index first, so the indices stay valid.
    const bool firstFailed = std::any_of(failed.begin(), failed.end(), [](const auto& f) { return f.first == 0; });
    std::vector<std::pair<std::size_t, std::string>> dropped = failed;
    for (std::size_t i : unservedBy) dropped.push_back({i, "left pairs unserved in the warm-up"});
    if (timedNow.size() >= 2)
        for (const auto& [i, ms] : timedNow) {
            std::string why = m.hopeless(timedNow, ms, candidates.size());
            int& run = m.candidates[i].hopelessRun;
            run = why.empty() ? 0 : run + 1;
            if (run >= 2 && std::none_of(dropped.begin(), dropped.end(), [i = i](const auto& d) { return d.first == i; }))
                dropped.push_back({i, why + ", the second call in a row"});
        }
    std::sort(dropped.begin(), dropped.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [i, why] : dropped) m.drop(i, why);
    if (m.candidates.empty())
        return fail("auto: every candidate failed; the last: " + (failed.empty() ? std::string("none") : failed.back().second));
    if (firstFailed) {  // `out` holds the failed candidate's partial output: the first one left answers
        out = DetectionOutput{};
        if (auto r = m.candidates[0].detector->detect(scene, candidates, out); !r)
            return fail("auto: " + m.candidates[0].name + ": " + r.error().message);
    }
    out.stats.count("auto_warmup", 1.0);
    out.stats.totalMs = m.now() - t0;  // the whole call, every candidate included
    if (m.candidates.size() == 1 && !m.candidates[0].timedMs.empty()) {
        m.decide();  // the others left this round after timed calls: a decision on what was timed
    } else if (m.candidates.size() == 1) {
        m.decided = true;
        m.chosen = 0;
        m.reason = m.glNote + m.notes + ", " + m.candidates[0].name + " is the only exact detector left";
    } else if (std::all_of(m.candidates.begin(), m.candidates.end(),
                           [&](const auto& c) { return static_cast<int>(c.timedMs.size()) >= m.tuning.warmupCalls; })) {
        m.decide();
    }
    return {};
}

int AutoDetector::rounds() const { return impl_->rounds + 1; }

Result<std::unique_ptr<Detector>> createAutoDetector(std::vector<AutoCandidate> candidates, AutoTuning tuning,
                                                     std::string why) {
    if (candidates.empty()) return fail("auto: no candidate");
    if (tuning.warmupCalls < 1) return fail("auto: warmupCalls must be >= 1");
    auto impl = std::make_unique<AutoDetector::Impl>();
    impl->tuning = std::move(tuning);
    impl->glNote = std::move(why);
    std::vector<std::string> failedToCreate;
    for (AutoCandidate& c : candidates) {
        auto made = c.create();
        if (!made) {
            failedToCreate.push_back(c.name + " (" + brief(made.error().message) + ")");
            continue;
        }
        impl->candidates.push_back({c.name, c.usesGl, std::move(*made), std::move(c.create), {}, false});
    }
    if (impl->candidates.empty()) return fail("auto: every candidate failed to start: " + joined(failedToCreate));
    if (!failedToCreate.empty()) impl->notes += ", left out as they failed to start: " + joined(failedToCreate);
    if (impl->candidates.size() == 1) {
        impl->decided = true;
        impl->reason = impl->glNote + impl->notes + ", " + impl->candidates[0].name + " is the only candidate";
    } else {
        impl->reason = impl->glNote + impl->notes + ", the fastest of " + std::to_string(impl->candidates.size()) +
                       " by median wall time over the first " + std::to_string(impl->tuning.warmupCalls) +
                       " calls with pairs";
    }
    return std::unique_ptr<Detector>(new AutoDetector(std::move(impl)));
}

Result<std::unique_ptr<Detector>> createAutoDetector(const DetectorSettings& settings) {
    auto impl = std::make_unique<AutoDetector::Impl>();
    // Exact registered detectors, in registry order.
    std::vector<const DetectorInfo*> exact;
    for (const DetectorInfo& d : registeredDetectors())
        if (d.reportsTrianglePairs) exact.push_back(&d);

    // Own options, and the rest sorted to the candidates that declare them.
    std::vector<std::string> named;
    OptionList forwarded;
    for (const auto& [key, value] : settings.options) {
        if (key == "candidates") {
            named = splitNames(value);
            if (named.empty()) return fail("auto: option candidates=" + value + " names no detector");
        } else if (key == "warmupCalls") {
            int calls = 0;
            if (!detail::parseValue(value, calls) || calls < 1)
                return fail("auto: option warmupCalls=" + value + " is not an int >= 1 (timed calls per candidate)");
            impl->tuning.warmupCalls = calls;
        } else if (key == "remeasureAt") {
            float at = 0.0f;
            if (!detail::parseValue(value, at) || !(at == 0.0 || at > 1.0))
                return fail("auto: option remeasureAt=" + value +
                            " is not 0 (never measure again) or a factor > 1 (candidate pairs a call)");
            impl->tuning.remeasureAt = double(at);
        } else if (key == "remeasureMax") {
            int most = 0;
            if (!detail::parseValue(value, most) || most < 0)
                return fail("auto: option remeasureMax=" + value + " is not an int >= 0 (later measuring rounds)");
            impl->tuning.remeasureMax = most;
        } else {
            forwarded.emplace_back(key, value);
        }
    }
    std::vector<const DetectorInfo*> pool;
    std::string knownIssues;
    if (named.empty()) {
        for (const DetectorInfo* d : exact) {
            if (d->knownIssue.empty())
                pool.push_back(d);
            else
                knownIssues += ", " + d->name + " left out (known issue: " + d->knownIssue + ")";
        }
    } else {
        for (const std::string& name : named) {
            const auto it = std::find_if(exact.begin(), exact.end(), [&](const auto* d) { return d->name == name; });
            if (it == exact.end()) {
                std::vector<std::string> names;
                for (const auto* d : exact) names.push_back(d->name);
                return fail("auto: candidates=" + name + " is not an exact registered detector; they are " +
                            joined(names));
            }
            if (std::find(pool.begin(), pool.end(), *it) == pool.end()) pool.push_back(*it);
        }
        std::stable_sort(pool.begin(), pool.end(), [&](const auto* a, const auto* b) {  // registry order
            return std::find(exact.begin(), exact.end(), a) < std::find(exact.begin(), exact.end(), b);
        });
    }
    for (const auto& [key, value] : forwarded) {
        bool any = false;
        std::set<std::string> known{"candidates", "warmupCalls", "remeasureAt", "remeasureMax"};
        for (const auto* d : exact)
            for (const SettingDoc& s : d->settings) {
                known.insert(s.name);
                any = any || (s.name == key && std::find(pool.begin(), pool.end(), d) != pool.end());
            }
        if (!any)
            return fail("auto: unknown option '" + key + "': no candidate has it; the options are " +
                        joined(std::vector<std::string>(known.begin(), known.end())));
    }

    // The rule: GL detectors need a current context, and a hardware one unless named.
    const gl::ContextInfo* gl = gl::Context::currentInfo();
    const bool software = gl != nullptr && isSoftwareRenderer(gl->renderer);
    impl->glNote = gl == nullptr ? std::string("no current GL context")
                                 : gl->renderer + (software ? ": software GL" : ": hardware GL");
    std::vector<std::string> leftOut, failedToCreate;
    for (const DetectorInfo* d : pool) {
        if (d->usesGl && (gl == nullptr || (software && named.empty()))) {
            leftOut.push_back(d->name);
            continue;
        }
        DetectorSettings own = settings;
        own.validate = false;  // createDetector wraps the whole
        own.options.clear();
        for (const auto& [key, value] : forwarded)
            for (const SettingDoc& s : d->settings)
                if (s.name == key) own.options.emplace_back(key, value);
        auto made = d->create(own);
        // Settings the user gave it that it rejects are the user's to fix: an error. Otherwise
        // (a driver that rejects its shaders, a GPU limit) it is left out, and said.
        if (!made && !own.options.empty()) return fail("auto: " + d->name + ": " + made.error().message);
        if (!made) {
            failedToCreate.push_back(d->name + " (" + brief(made.error().message) + ")");
            continue;
        }
        auto make = [d, own]() { return d->create(own); };
        impl->candidates.push_back({d->name, d->usesGl, std::move(*made), std::move(make), {}, false});
    }
    if (impl->candidates.empty() && !failedToCreate.empty())
        return fail("auto: every candidate failed to start: " + joined(failedToCreate));
    if (impl->candidates.empty())
        return fail("auto: no exact detector is left for " + impl->glNote + " (left out: " + joined(leftOut) +
                    "); make a GL 4.5 context current first, or name other candidates");
    if (!leftOut.empty())
        impl->notes = ", " + joined(leftOut) +
                      (gl == nullptr ? " left out (need GL)" : " left out (GL detectors would run on the CPU cores)");
    impl->notes += knownIssues;
    if (!failedToCreate.empty()) impl->notes += ", left out as they failed to start: " + joined(failedToCreate);
    if (impl->candidates.size() == 1) {
        impl->decided = true;
        impl->reason =
            impl->glNote + impl->notes + ", " + impl->candidates[0].name + " is the only exact detector left";
    } else {
        impl->reason = impl->glNote + impl->notes + ", the fastest of " +
                       std::to_string(impl->candidates.size()) + " by median wall time over the first " +
                       std::to_string(impl->tuning.warmupCalls) + " calls with pairs";
    }
    return std::unique_ptr<Detector>(new AutoDetector(std::move(impl)));
}

}  // namespace isc
