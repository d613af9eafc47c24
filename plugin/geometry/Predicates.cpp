#include "isc/geometry/Predicates.h"

#include <cmath>
#include <cstddef>

namespace isc::geometry {
namespace {

// Expansion arithmetic (Shewchuk 1997): a value is a sum of non-overlapping doubles in
// increasing magnitude; its sign is the sign of the largest (last) non-zero term. Only
// reached when the filter cannot decide, so it favours simplicity over speed.
struct Expansion {
    double t[256];
    int n = 0;
};

inline void twoSum(double a, double b, double& x, double& y) {
    x = a + b;
    const double bv = x - a;
    const double av = x - bv;
    y = (a - av) + (b - bv);
}

inline void twoProduct(double a, double b, double& x, double& y) {
    x = a * b;
    y = std::fma(a, b, -x);
}

// e += b (Grow-Expansion with zero elimination).
void grow(Expansion& e, double b) {
    double q = b;
    int m = 0;
    for (int i = 0; i < e.n; ++i) {
        double h;
        twoSum(q, e.t[i], q, h);
        if (h != 0.0) e.t[m++] = h;
    }
    if (q != 0.0) e.t[m++] = q;
    e.n = m;
}

Expansion fromDiff(double a, double b) {
    Expansion e;
    grow(e, a);
    grow(e, -b);
    return e;
}

Expansion mul(const Expansion& a, const Expansion& b) {
    Expansion r;
    for (int i = 0; i < a.n; ++i) {
        for (int j = 0; j < b.n; ++j) {
            double x, y;
            twoProduct(a.t[i], b.t[j], x, y);
            grow(r, y);
            grow(r, x);
        }
    }
    return r;
}

void addTo(Expansion& r, const Expansion& a, double sign) {
    for (int i = 0; i < a.n; ++i) grow(r, sign * a.t[i]);
}

int signOf(const Expansion& e) {
    if (e.n == 0) return 0;
    return e.t[e.n - 1] > 0.0 ? 1 : (e.t[e.n - 1] < 0.0 ? -1 : 0);
}

// Slightly above Shewchuk's bounds ((7 + 56 eps) eps and (3 + 16 eps) eps).
constexpr double kOrient3dBound = 8.0e-16;
constexpr double kOrient2dBound = 3.5e-16;

int orient3dExact(const DVec3& a, const DVec3& b, const DVec3& c, const DVec3& d) {
    const Expansion ux = fromDiff(b.x, a.x), uy = fromDiff(b.y, a.y), uz = fromDiff(b.z, a.z);
    const Expansion vx = fromDiff(c.x, a.x), vy = fromDiff(c.y, a.y), vz = fromDiff(c.z, a.z);
    const Expansion wx = fromDiff(d.x, a.x), wy = fromDiff(d.y, a.y), wz = fromDiff(d.z, a.z);
    // (u x v) . w
    Expansion cx = mul(uy, vz);
    addTo(cx, mul(uz, vy), -1.0);
    Expansion cy = mul(uz, vx);
    addTo(cy, mul(ux, vz), -1.0);
    Expansion cz = mul(ux, vy);
    addTo(cz, mul(uy, vx), -1.0);
    Expansion r = mul(cx, wx);
    addTo(r, mul(cy, wy), 1.0);
    addTo(r, mul(cz, wz), 1.0);
    return signOf(r);
}

}  // namespace

int orient3d(const DVec3& a, const DVec3& b, const DVec3& c, const DVec3& d) {
    const DVec3 t[3] = {a, b, c};
    int s;
    orient3dOfPoints(t, &d, 1, &s);
    return s;
}

void orient3dOfPoints(const DVec3 t[3], const DVec3* d, int count, int* signs) {
    // The plane's products once (the same operations, in the same order, as one orient3d call
    // per point: the same signs, bit for bit; a triangle-triangle test asks three points).
    const DVec3& a = t[0];
    const double ux = t[1].x - a.x, uy = t[1].y - a.y, uz = t[1].z - a.z;
    const double vx = t[2].x - a.x, vy = t[2].y - a.y, vz = t[2].z - a.z;
    const double uyvz = uy * vz, uzvy = uz * vy;
    const double uzvx = uz * vx, uxvz = ux * vz;
    const double uxvy = ux * vy, uyvx = uy * vx;
    const double nx = uyvz - uzvy, ny = uzvx - uxvz, nz = uxvy - uyvx;
    const double mx = std::fabs(uyvz) + std::fabs(uzvy), my = std::fabs(uzvx) + std::fabs(uxvz),
                 mz = std::fabs(uxvy) + std::fabs(uyvx);
    for (int i = 0; i < count; ++i) {
        const double wx = d[i].x - a.x, wy = d[i].y - a.y, wz = d[i].z - a.z;
        const double det = nx * wx + ny * wy + nz * wz;
        const double permanent = mx * std::fabs(wx) + my * std::fabs(wy) + mz * std::fabs(wz);
        const double bound = kOrient3dBound * permanent;
        // Without branches on the sign (a pile's signs are not predictable); the filter fails
        // seldom (points within rounding of the plane).
        const int sign = int(det > bound) - int(det < -bound);
        signs[i] = sign != 0 || permanent == 0.0 ? sign : orient3dExact(t[0], t[1], t[2], d[i]);
    }
}

int orient2d(double ax, double ay, double bx, double by, double cx, double cy) {
    const double l = (bx - ax) * (cy - ay);
    const double r = (by - ay) * (cx - ax);
    const double det = l - r;
    const double bound = kOrient2dBound * (std::fabs(l) + std::fabs(r));
    if (det > bound) return 1;
    if (det < -bound) return -1;
    if (l == 0.0 && r == 0.0) return 0;
    Expansion e = mul(fromDiff(bx, ax), fromDiff(cy, ay));
    addTo(e, mul(fromDiff(by, ay), fromDiff(cx, ax)), -1.0);
    return signOf(e);
}

}  // namespace isc::geometry
