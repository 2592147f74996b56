// Compiles the vendored kissfft sources (kissfft/, unmodified upstream files) as one unit.
//
// Floating-point contraction is off: without it a compiler may fuse a*b + c into one FMA on
// targets that have it (arm64: every iPhone and Apple Watch), which rounds differently. Off,
// every platform computes each butterfly with the same IEEE operations, so spectral features
// are the same bits on a phone as in the dataset built on Linux (docs/live.md).
#pragma STDC FP_CONTRACT OFF
#ifndef kiss_fft_scalar
#define kiss_fft_scalar float
#endif
#include "kissfft/kiss_fft.c"
#include "kissfft/kiss_fftr.c"
