#include "isc/bullet/PenetrationProbe.h"

#include "SceneMirror.h"
#include "ShapeMesh.h"

#include "isc/geometry/Penetration.h"
#include "isc/geometry/Reference.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace isc::bullet {

struct PenetrationProbe::Impl {
    struct Shape {
        std::shared_ptr<const Mesh> mesh;  // null: not measured
        std::unique_ptr<geometry::SurfaceDistance> distance;
    };
    struct Object {
        const btCollisionShape* shape = nullptr;
        std::unique_ptr<geometry::PosedMesh> posed;
    };
    // One measured object this call.
    struct Item {
        int index = 0;  // in the world's object array
        const btCollisionObject* object = nullptr;
        const Shape* shape = nullptr;
        geometry::PosedMesh* posed = nullptr;
        btVector3 lo, hi;
        bool fixed = false;  // static or kinematic
    };
    std::map<const btCollisionShape*, Shape> shapes;
    std::unordered_map<const btCollisionObject*, Object> objects;

    const Shape& shape(const btCollisionShape& s) {
        auto it = shapes.find(&s);
        if (it != shapes.end()) return it->second;
        Shape entry;
        switch (s.getShapeType()) {
            case GIMPACT_SHAPE_PROXYTYPE:
            case TRIANGLE_MESH_SHAPE_PROXYTYPE:
            case CONVEX_TRIANGLEMESH_SHAPE_PROXYTYPE:
            case BOX_SHAPE_PROXYTYPE:
                if (Result<ShapeMesh> m = readShapeMesh(s)) {
                    entry.mesh = m->mesh;
                    entry.distance = std::make_unique<geometry::SurfaceDistance>(*entry.mesh);
                }
                break;
            default:
                break;
        }
        return shapes.emplace(&s, std::move(entry)).first->second;
    }

    // The measured objects of `world`, posed now; `skipped` counts the others.
    std::vector<Item> gather(const btCollisionWorld& world, std::size_t& skipped) {
        std::vector<Item> items;
        const btCollisionObjectArray& all = world.getCollisionObjectArray();
        for (int i = 0; i < all.size(); ++i) {
            const btCollisionObject* o = all[i];
            const btCollisionShape* s = o->getCollisionShape();
            const Shape& sh = shape(*s);
            if (!sh.mesh || !isFinite(o->getWorldTransform())) {
                ++skipped;
                continue;
            }
            Object& ob = objects[o];
            if (ob.shape != s || !ob.posed) {
                ob.shape = s;
                ob.posed = std::make_unique<geometry::PosedMesh>(*sh.mesh);
            }
            ob.posed->update(toPose(o->getWorldTransform()));
            Item it;
            it.index = i;
            it.object = o;
            it.shape = &sh;
            it.posed = ob.posed.get();
            s->getAabb(o->getWorldTransform(), it.lo, it.hi);
            it.fixed = o->isStaticOrKinematicObject();
            items.push_back(it);
        }
        return items;
    }

    static bool overlap(const Item& a, const Item& b, double pad) {
        for (int k = 0; k < 3; ++k)
            if (double(a.lo[k]) > double(b.hi[k]) + pad || double(b.lo[k]) > double(a.hi[k]) + pad) return false;
        return true;
    }
};

PenetrationProbe::PenetrationProbe() : impl_(std::make_unique<Impl>()) {}
PenetrationProbe::~PenetrationProbe() = default;

PenetrationReport PenetrationProbe::measure(const btCollisionWorld& world) {
    const auto t0 = std::chrono::steady_clock::now();
    PenetrationReport report;
    const std::vector<Impl::Item> items = impl_->gather(world, report.skippedObjects);
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < items.size(); ++i)
        for (std::size_t j = i + 1; j < items.size(); ++j)
            if (!(items[i].fixed && items[j].fixed) && Impl::overlap(items[i], items[j], 0.0))
                pairs.emplace_back(int(i), int(j));
    report.pairsTested = pairs.size();
    std::vector<geometry::Penetration> found(pairs.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const Impl::Item& a = items[std::size_t(pairs[k].first)];
        const Impl::Item& b = items[std::size_t(pairs[k].second)];
        found[k] = geometry::penetration(*a.posed, *a.shape->distance, *b.posed, *b.shape->distance);
    }
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (found[k].depth <= 0.0) continue;
        ++report.pairsPenetrating;
        if (found[k].depth > report.maxDepth) {
            report.maxDepth = found[k].depth;
            report.deepestA = items[std::size_t(pairs[k].first)].object;
            report.deepestB = items[std::size_t(pairs[k].second)].object;
            report.deepestPoint = Vec3(found[k].point);
        }
    }
    report.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return report;
}

std::vector<double> PenetrationProbe::clearances(const btCollisionWorld& world, double limit) {
    std::size_t skipped = 0;
    const std::vector<Impl::Item> items = impl_->gather(world, skipped);
    std::vector<double> out(std::size_t(world.getCollisionObjectArray().size()),
                            std::numeric_limits<double>::quiet_NaN());
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < items.size(); ++i) {
        out[std::size_t(items[i].index)] = limit;
        for (std::size_t j = i + 1; j < items.size(); ++j)
            if (!(items[i].fixed && items[j].fixed) && Impl::overlap(items[i], items[j], limit))
                pairs.emplace_back(int(i), int(j));
    }
    std::vector<double> gap(pairs.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const Impl::Item& a = items[std::size_t(pairs[k].first)];
        const Impl::Item& b = items[std::size_t(pairs[k].second)];
        gap[k] = geometry::clearance(*a.posed, *a.shape->distance, *b.posed, *b.shape->distance, limit);
    }
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        double& ga = out[std::size_t(items[std::size_t(pairs[k].first)].index)];
        double& gb = out[std::size_t(items[std::size_t(pairs[k].second)].index)];
        ga = std::min(ga, gap[k]);
        gb = std::min(gb, gap[k]);
    }
    return out;
}

}  // namespace isc::bullet
