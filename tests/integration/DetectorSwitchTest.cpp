// Switching the dispatcher's detector back and forth while bodies leave and come back (the
// soak's pattern, issue 14): CollisionDispatcher::switchDetector keeps the detectors it made
// and re-uses them, so a re-used GPU detector must find the scene it knew, not a new one with
// the same counts and other ids (a crash in peel's exact stage when that was so). peel is
// exact (its triangle pairs are cpu's), so the pile must end where the same run with cpu alone
// ends.
#include "BunnyPile.h"
#include "GlTest.h"

#include "isc/bullet/CollisionDispatcher.h"
#include "isc/bullet/RigidWorld.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace isc;

namespace {

struct PileRun {
    std::vector<Pose> poses;
    int contacts = 0;
    std::size_t keptDetectors = 0;
};

// 5 bunnies, 90 steps; every 10 steps one body is taken out of the world or the one out is
// put back where it was (at rest); with `switching`, the detector alternates cpu / peel at the
// same steps (switch, then the churn: the step that crashed).
PileRun runPile(bool switching) {
    PileRun r;
    auto pile = scenes::makeBunnyPile(5, 1);
    EXPECT_TRUE(pile) << pile.error().message;
    bullet::WorldSettings ws;
    ws.detector = "cpu";
    // The dispatcher's settings serve every detector it makes (cpu takes no options), so
    // peel runs with its own defaults.
    auto made = bullet::RigidWorld::create(ws);
    EXPECT_TRUE(made) << made.error().message;
    if (!made) return r;
    bullet::RigidWorld& w = **made;
    w.addGround(pile->groundHalfExtents);
    for (const Pose& p : pile->poses) w.addMeshBody(pile->bunny, p);
    int out = -1;
    btTransform kept;
    for (int step = 1; step <= 90; ++step) {
        if (step % 10 == 0) {
            if (switching) {
                Result<void> s = w.dispatcher()->switchDetector((step / 10) % 2 == 1 ? "peel" : "cpu");
                EXPECT_TRUE(s.has_value()) << s.error().message;
            }
            if (out < 0) {
                out = (step / 10) % w.bodyCount();
                kept = w.rigidBody(out)->getWorldTransform();
                w.world().removeRigidBody(w.rigidBody(out));
            } else {
                btRigidBody* b = w.rigidBody(out);
                b->setWorldTransform(kept);
                b->setLinearVelocity(btVector3(0, 0, 0));
                b->setAngularVelocity(btVector3(0, 0, 0));
                w.world().addRigidBody(b);
                b->activate(true);
                out = -1;
            }
        }
        w.step();
    }
    for (int i = 0; i < w.bodyCount(); ++i) r.poses.push_back(w.pose(i));
    r.contacts = w.contactCount();
    r.keptDetectors = w.dispatcher()->tables().keptDetectors;
    return r;
}

class DetectorSwitchTest : public isc::test::GlTest {};

}  // namespace

TEST_F(DetectorSwitchTest, SwitchingBackAndForthWithBodiesComingAndGoingKeepsThePile) {
    const PileRun cpu = runPile(false);
    const PileRun both = runPile(true);
    ASSERT_EQ(cpu.poses.size(), 5u);
    EXPECT_EQ(both.keptDetectors, 2u);  // cpu and peel, each made once
    ASSERT_EQ(both.poses.size(), cpu.poses.size());
    for (std::size_t i = 0; i < cpu.poses.size(); ++i) {
        SCOPED_TRACE("body " + std::to_string(i));
        // Exact detectors give the same triangle pairs; what differs is the order of the pairs
        // (float sums in another order), so the poses agree closely, not to the bit.
        EXPECT_NEAR(both.poses[i].position.x, cpu.poses[i].position.x, 0.01f);
        EXPECT_NEAR(both.poses[i].position.y, cpu.poses[i].position.y, 0.01f);
        EXPECT_NEAR(both.poses[i].position.z, cpu.poses[i].position.z, 0.01f);
    }
    EXPECT_GT(both.contacts, 0);
}
