#include "GlTest.h"
#include "isc/detectors/SlicesDetector.h"
using namespace isc;
class SlicesTest : public GlTest {};
TEST_F(SlicesTest, Creates) { EXPECT_TRUE(createSlicesDetector({}, {}).has_value()); }
