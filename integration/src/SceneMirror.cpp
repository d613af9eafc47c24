#include "SceneMirror.h"

#include "isc/mesh/Shapes.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace isc::bullet {

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

const MirroredMesh* SceneMirror::mesh(const btCollisionShape& shape, float margin) {
    const auto key = std::make_pair(&shape, margin);
    if (auto it = meshes_.find(key); it != meshes_.end()) return it->second.get();
    if (refused_.contains(key)) return nullptr;

    std::ostringstream who;
    who << "mesh shape " << shape.getName() << " at " << static_cast<const void*>(&shape);
    Result<ShapeMesh> real = readShapeMesh(shape);
    if (!real) {
        refused_[key] = true;
        warn_("shape:" + who.str(), who.str() + " cannot be used, its body gets no mesh contacts: " +
                                        real.error().message);
        return nullptr;
    }
    auto m = std::make_unique<MirroredMesh>();
    m->real = std::move(*real);
    if (needsClosed_ && !m->real.mesh->isClosed()) {
        // Mirrored all the same: its pairs are served by the exact path, never dropped.
        m->exactOnly = true;
        warn_("open:" + who.str(), who.str() + " is not closed (" + m->real.mesh->report().describe() +
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
            warn_("offset:" + who.str(), who.str() + ": its offset surface lost triangles; detecting "
                                                     "on the real surface (contacts only on penetration)");
    }
    m->detectMesh = scene_.addMesh(std::move(detectMesh));
    return (meshes_[key] = std::move(m)).get();
}

void SceneMirror::verticesChanged(std::span<const btCollisionShape* const> shapes) {
    struct Job {
        const btCollisionShape* shape;
        float margin;
        MirroredMesh* mesh;
        std::string error;
    };
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
        if (Result<void> r = rereadVertices(m.real, *job.shape); !r) {
            job.error = r.error().message;
            continue;
        }
        m.grid = TriangleGrid(*m.real.mesh, std::max(job.margin, gridReach_));
        if (m.offset) m.detectVertices = swollenVertices(*m.real.mesh, 0.5f * job.margin);
        else m.detectVertices.assign(m.real.mesh->vertices().begin(), m.real.mesh->vertices().end());
        ++m.version;
    }
    for (const Job& job : jobs) {
        if (job.error.empty()) continue;
        std::ostringstream who;
        who << "mesh shape " << job.shape->getName() << " at " << static_cast<const void*>(job.shape);
        warn_("reread:" + who.str(),
              who.str() + ": its changed vertices cannot be used, it keeps the previous ones: " + job.error);
    }
}

const MirroredBody& SceneMirror::body(const btCollisionObject& object, float margin) {
    MirroredBody& b = bodies_[&object];
    const btCollisionShape* shape = object.getCollisionShape();
    if (b.shape != shape || b.margin != margin) {
        // New body, or its shape or margin changed: old objects stay in the scene, inactive.
        for (const MirroredPart& p : b.parts) scene_.setActive(p.object, false);
        b = MirroredBody{};
        b.shape = shape;
        b.margin = margin;
        b.usable = true;
        auto addPart = [&](const btCollisionShape& s, int child, const btTransform& local) {
            const MirroredMesh* m = mesh(s, margin);
            if (!m) {
                b.usable = false;
                return;
            }
            MirroredPart part;
            part.object = scene_.addObject(m->detectMesh);
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
        if (!b.usable) {
            for (const MirroredPart& p : b.parts) scene_.setActive(p.object, false);
            b.parts.clear();
        }
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
