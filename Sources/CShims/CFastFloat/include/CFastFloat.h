// CFastFloat: a plain C face for two functions of fast_float (Debian libfast-float-dev,
// header-only C++, https://github.com/fastfloat/fast_float). Prefixed names, no state.
// Used only by MotionIngest's `_NumberKernels.swift`, which validates the docs/inputs.md, "Bad rows and time order" grammar
// itself and hands over only bytes and numbers it has already checked.
#ifndef CFASTFLOAT_H
#define CFASTFLOAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `fast_float::from_chars` for a double on `[first, last)`, in the general format
/// (digits, optional fraction, optional exponent; a leading `-`, never `+`).
/// Returns the number of bytes consumed (0 when the bytes do not start with a number) and
/// stores the correctly rounded value (±inf beyond the range of a double) in `*out`.
size_t cfastfloat_parse_double(const char *first, const char *last, double *out);

/// The correctly rounded double nearest to `w × 10^q` (Eisel–Lemire: `fast_float::compute_float`),
/// for a decimal mantissa `w` of at most 19 digits taken without truncation.
/// Returns 1 and stores the value (+inf beyond the range of a double) in `*out`, or 0 when
/// the fast algorithm cannot decide (rare); then parse the digits with `cfastfloat_parse_double`.
int cfastfloat_compute_double(uint64_t w, int64_t q, double *out);

#ifdef __cplusplus
}
#endif

#endif
