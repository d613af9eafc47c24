#include "SceneMirror.h"

#include "isc/core/Assert.h"
#include "isc/mesh/Shapes.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace isc::bullet {

SceneMirror::SceneMirror(bool needsClosed, float gridReach, Warn warn)
    : needsClosed_(needsClosed), gridReach_(gridReach), warn_(std::move(warn)) {
    // Test hook: a deforming mesh's grid built again at every change, without slack (the form
    // before 2026-11-29, fourteenth session), for side-by-side runs.
    if (const char* slack = std::getenv("ISC_DEFORM_GRID_SLACK"); slack && *slack)
        gridSlack_ = std::max(0.0f, std::strtof(slack, nullptr));
}

Pose toPose(const btTransform& t) {
    const btQuaternion q = t.getRotation();
    Pose p;
    p.position = Vec3(float(t.getOrigin().x()), float(t.getOrigin().y()), float(t.getOrigin().z()));
    p.rotation = Quat(float(q.w()), float(q.x()), float(q.y()), float(q.z()));
    return p;
}

bool isFinite(const btTransform& t) {
    for (int i = 0; i < 3; ++i) {
        if (!std::isfinite(t.getOrigin()[i])) return false;
        for (int j = 0; j < 3; ++j)
            if (!std::isfinite(t.getBasis()[i][j])) return false;
    }
    return true;
}

const MirroredMesh* SceneMirror::mesh(const btCollisionShape& shape, float margin) { return entry(shape, margin); }

const MirroredMesh* SceneMirror::inUse(const btCollisionShape* shape, float margin) const {
    auto it = meshes_.find({shape, margin});
    return it != meshes_.end() && it->second->users > 0 ? it->second.get() : nullptr;
}

MirroredMesh* SceneMirror::entry(const btCollisionShape& shape, float margin) {
    const auto key = std::make_pair(&shape, margin);
    if (auto it = meshes_.find(key); it != meshes_.end()) {
        MirroredMesh& m = *it->second;
        if (m.users > 0) return &m;  // a body uses the shape: it is alive and the same
        // Idle: the shape may have been deleted and another made at its address.
        if (m.signature == shapeSignature(shape)) return &m;  // stays idle until a body takes it
        retire(m);  // erases it
    }
    if (refused_.contains(key)) return nullptr;

    const std::string who = describeShape(shape);
    Result<ShapeMesh> real = readShapeMesh(shape);
    if (!real) {
        refused_[key] = true;
        warn_("shape:" + who, who + " cannot be used, its body gets no mesh contacts: " +
                                        real.error().message);
        return nullptr;
    }
    auto m = std::make_unique<MirroredMesh>();
    m->real = std::move(*real);
    if (needsClosed_ && !m->real.mesh->isClosed()) {
        // Mirrored all the same: its pairs are served by the exact path, never dropped.
        m->exactOnly = true;
        warn_("open:" + who, who + " is not closed (" + m->real.mesh->report().describe() +
                                       ") and the detector needs closed meshes: its pairs go to the exact "
                                       "'cpu' detector (counted in DispatchStats::fallbackPairs)");
    }
    m->grid = TriangleGrid(*m->real.mesh, std::max(margin, gridReach_));
    // Half the margin on each body: two bodies touch (in the detector's eyes) at the mean
    // of their margins.
    std::shared_ptr<const Mesh> detectMesh = m->real.mesh;
    if (margin > 0.0f) {
        Mesh offset = swollen(*m->real.mesh, 0.5f * margin);
        if (offset.triangleCount() == m->real.mesh->triangleCount()) {
            detectMesh = std::make_shared<const Mesh>(std::move(offset));
            m->offset = true;
        } else
            warn_("offset:" + who, who + ": its offset surface lost triangles; detecting "
                                                     "on the real surface (contacts only on penetration)");
    }
    m->detectMesh = scene_.addMesh(std::move(detectMesh));
    m->key = key;
    m->signature = shapeSignature(shape);
    idle_.push_back(key);  // idle until a body part takes it (collideOnePair's meshes stay idle)
    return (meshes_[key] = std::move(m)).get();
}

void SceneMirror::verticesChanged(std::span<const btCollisionShape* const> shapes) {
    struct Job {
        const btCollisionShape* shape;
        float margin;
        MirroredMesh* mesh;
        std::string error;
    };
    // An idle mesh (no body uses it) of a named shape is read anew when a body takes it.
    for (std::size_t i = idle_.size(); i-- > 0;)
        if (std::find(shapes.begin(), shapes.end(), idle_[i].first) != shapes.end()) retire(*meshes_.at(idle_[i]));
    std::vector<Job> jobs;
    for (auto& [key, m] : meshes_)
        if (std::find(shapes.begin(), shapes.end(), key.first) != shapes.end()) jobs.push_back({key.first, key.second, m.get(), {}});
    // Each job touches its own mirrored mesh only: all cores (a deforming pile changes every
    // body's shape every step).
    const auto count = static_cast<std::int64_t>(jobs.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
    for (std::int64_t k = 0; k < count; ++k) {
        Job& job = jobs[std::size_t(k)];
        MirroredMesh& m = *job.mesh;
        Result<std::vector<Vec3>> v = rereadDetectVertices(m.real, *job.shape, 0.5f * job.margin, m.offset);
        if (!v) {
            job.error = v.error().message;
            continue;
        }
        // The grid is built again only once a vertex has moved more than its slack since it
        // was last built (a wobble of a few centimetres: every few steps, not every step).
        const float reach = std::max(job.margin, gridReach_);
        if (!m.grid.covers(*m.real.mesh)) {
            m.grid.rebuild(*m.real.mesh, reach, gridSlack_ * reach);
        }
        m.detectVertices = std::move(*v);
        ++m.version;
    }
    for (const Job& job : jobs) {
        if (job.error.empty()) continue;
        const std::string who = describeShape(*job.shape);
        warn_("reread:" + who, who + ": its changed vertices cannot be used, it keeps the previous ones: " + job.error);
    }
}

void SceneMirror::releaseParts(MirroredBody& b) {
    for (const MirroredPart& p : b.parts) {
        scene_.setActive(p.object, false);
        MirroredMesh* m = meshes_.at(p.mesh->key).get();
        // Re-used by the next body of this mesh, moving or static (body() sets the pose and
        // the static flag every step; no detector keeps anything per static object's pose).
        freeObjects_[m->detectMesh].push_back(p.object);
        if (--m->users > 0) continue;
        // No body uses the mesh any more: idle, kept for the next body of its shape.
        idle_.push_back(m->key);
    }
    b.parts.clear();
    while (idle_.size() > kIdleMeshes) retire(*meshes_.at(idle_.front()));
}

void SceneMirror::retire(MirroredMesh& m) {
    ISC_ASSERT(m.users == 0, "SceneMirror::retire(): a body still uses the mesh");
    // The scene keeps its id (never re-used) with a small stand-in; its objects stay
    // inactive and are never re-used.
    if (!standIn_) standIn_ = std::make_shared<const Mesh>(shapes::box(Vec3(1e-3f, 1e-3f, 1e-3f)));
    if (auto it = std::find(idle_.begin(), idle_.end(), m.key); it != idle_.end()) idle_.erase(it);
    freeObjects_.erase(m.detectMesh);
    scene_.retireMesh(m.detectMesh, standIn_);
    meshes_.erase(m.key);  // m is gone
}

void SceneMirror::release(const btCollisionObject* body) {
    auto it = bodies_.find(body);
    if (it == bodies_.end()) return;
    releaseParts(it->second);
    for (const auto& key : it->second.refused) refused_.erase(key);
    bodies_.erase(it);
}

MirrorTables SceneMirror::tables() const {
    MirrorTables t;
    t.bodies = bodies_.size();
    t.meshes = meshes_.size();
    t.refused = refused_.size();
    t.sceneObjects = scene_.objectCount();
    t.sceneMeshes = scene_.meshCount();
    for (const auto& [mesh, free] : freeObjects_) t.freeObjects += free.size();
    t.idleMeshes = idle_.size();
    return t;
}

const MirroredBody& SceneMirror::body(const btCollisionObject& object, float margin) {
    MirroredBody& b = bodies_[&object];
    const btCollisionShape* shape = object.getCollisionShape();
    if (b.shape != shape || b.margin != margin) {
        // New body, or its shape or margin changed: its old objects wait for re-use (released
        // after the new parts are made, so a mesh both use is not retired and read again).
        MirroredBody old = std::move(b);
        b = MirroredBody{};
        b.shape = shape;
        b.margin = margin;
        b.usable = true;
        auto addPart = [&](const btCollisionShape& s, int child, const btTransform& local) {
            MirroredMesh* m = entry(s, margin);
            if (!m) {
                b.usable = false;
                b.refused.emplace_back(&s, margin);
                return;
            }
            MirroredPart part;
            std::vector<ObjectId>& free = freeObjects_[m->detectMesh];
            if (!free.empty()) {
                part.object = free.back();
                free.pop_back();
                scene_.setActive(part.object, true);
            } else {
                part.object = scene_.addObject(m->detectMesh);
            }
            if (m->users++ == 0)
                if (auto it = std::find(idle_.begin(), idle_.end(), m->key); it != idle_.end()) idle_.erase(it);
            part.childIndex = child;
            part.local = local;
            part.mesh = m;
            b.parts.push_back(part);
        };
        if (shape->getShapeType() == COMPOUND_SHAPE_PROXYTYPE) {
            const auto* c = static_cast<const btCompoundShape*>(shape);
            for (int i = 0; i < c->getNumChildShapes(); ++i)
                addPart(*c->getChildShape(i), i, c->getChildTransform(i));
        } else {
            addPart(*shape, -1, btTransform::getIdentity());
        }
        if (!b.usable) releaseParts(b);
        releaseParts(old);
        for (const auto& key : old.refused) refused_.erase(key);
    }
    const btTransform& world = object.getWorldTransform();
    const auto* compound = shape->getShapeType() == COMPOUND_SHAPE_PROXYTYPE
                               ? static_cast<const btCompoundShape*>(shape)
                               : nullptr;
    for (MirroredPart& p : b.parts) {
        // Compound children may be moved (updateChildTransform): read them every step.
        if (compound && p.childIndex < compound->getNumChildShapes())
            p.local = compound->getChildTransform(p.childIndex);
        scene_.setPose(p.object, toPose(world * p.local));
        if (p.version != p.mesh->version) {  // a deforming shape read again
            scene_.setVertices(p.object, p.mesh->detectVertices);
            p.version = p.mesh->version;
        }
        scene_.setStatic(p.object, object.isStaticObject());  // the environment (heightmap detector)
    }
    return b;
}

}  // namespace isc::bullet
