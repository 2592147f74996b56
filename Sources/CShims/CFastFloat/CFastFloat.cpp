// See include/CFastFloat.h. Glue only: each function is one fast_float call.
#include "CFastFloat.h"

#include <fast_float/fast_float.h>

extern "C" size_t cfastfloat_parse_double(const char *first, const char *last, double *out) {
    auto result = fast_float::from_chars(first, last, *out);
    if (result.ec != std::errc() && result.ec != std::errc::result_out_of_range) { return 0; }
    return static_cast<size_t>(result.ptr - first);
}

extern "C" int cfastfloat_compute_double(uint64_t w, int64_t q, double *out) {
    fast_float::adjusted_mantissa am = fast_float::compute_float<fast_float::binary_format<double>>(q, w);
    if (am.power2 < 0) { return 0; }
    fast_float::to_float(false, am, *out);
    return 1;
}
