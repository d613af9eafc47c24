#pragma once
/// Programmer-error checks. ISC_ASSERT is on in Debug and RelWithDebInfo (NDEBUG unset),
/// off in Release. The message starts with "Class::fn(): ".
#include <cstdio>
#include <cstdlib>

#ifdef NDEBUG
#define ISC_ASSERT(cond, msg) ((void)0)
#else
#define ISC_ASSERT(cond, msg)                                                          \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, \
                         msg);                                                         \
            std::abort();                                                              \
        }                                                                              \
    } while (0)
#endif
