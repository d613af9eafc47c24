// Slices detector, logic-op probe: writes uValue; with GL_OR or GL_XOR enabled the target
// must end up combined with what it held (SlicesDetector.cpp, probeIntegerLogicOp).
uniform uint uValue;
layout(location = 0) out uvec4 oTarget;
void main() { oTarget = uvec4(uValue, 0u, 0u, 0u); }
