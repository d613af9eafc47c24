// Exclusive prefix sum, in place, in one workgroup of 1024 invocations: scanData[0, n) becomes
// its exclusive scan and scanData[n] the total (the buffer holds n + 1 entries). Each
// invocation sums a contiguous chunk, the chunk sums are scanned in shared memory
// (Hillis-Steele), then each chunk is rewritten. Used for the draws' separation items, the
// pairing grid's cells and the packing rows: a few thousand to a few hundred thousand entries,
// where one workgroup is cheaper than a multi-pass scan. Include it after declaring
// `scanData` (binding PEEL_BINDING_SCAN unless the includer says otherwise), or define
// PEEL_SCAN_MAIN for the stand-alone shader (uniform uScanCount = n).
#ifndef ISC_PEEL_SCAN_GLSL
#define ISC_PEEL_SCAN_GLSL

#ifdef PEEL_SCAN_MAIN
#include "peel/bindings.h"
layout(local_size_x = 1024) in;
layout(std430, binding = PEEL_BINDING_SCAN) coherent buffer PeelScan { uint scanData[]; };
uniform uint uScanCount;
#endif

shared uint sScanSums[1024];

// Every invocation of the (1024-wide) workgroup must call it, in uniform control flow.
void peelScanExclusive(uint n) {
    uint tid = gl_LocalInvocationIndex;
    uint per = (n + 1023u) / 1024u;
    uint begin = min(tid * per, n), end = min(begin + per, n);
    uint sum = 0u;
    for (uint i = begin; i < end; ++i) sum += scanData[i];
    sScanSums[tid] = sum;
    barrier();
    for (uint d = 1u; d < 1024u; d <<= 1) {
        uint v = tid >= d ? sScanSums[tid - d] : 0u;
        barrier();
        sScanSums[tid] += v;
        barrier();
    }
    uint running = tid == 0u ? 0u : sScanSums[tid - 1u];
    for (uint i = begin; i < end; ++i) {
        uint v = scanData[i];
        scanData[i] = running;
        running += v;
    }
    if (tid == 1023u) scanData[n] = sScanSums[1023];
    memoryBarrierBuffer();
    barrier();
}

#ifdef PEEL_SCAN_MAIN
void main() { peelScanExclusive(uScanCount); }
#endif

#endif
