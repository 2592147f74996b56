// kissfft (https://github.com/mborgerding/kissfft, BSD-3-Clause), single precision: the headers
// of the vendored sources in ../kissfft (release 131.1.0 plus upstream's later overflow check in
// kiss_fft_alloc). Vendored rather than Debian's libkissfft so that the library products build on
// every platform Swift does (iOS and watchOS included, for MotionLive) and compute the same bits
// there: see ../README.md.
#ifndef MOTIONPREP_CKissFFT_H
#define MOTIONPREP_CKissFFT_H
#ifndef kiss_fft_scalar
#define kiss_fft_scalar float
#endif
#include "kiss_fft.h"
#include "kiss_fftr.h"
#endif
