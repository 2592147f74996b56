// Shim for Debian's libkissfft-float (single precision). Included by path rather than through
// pkg-config, whose `-Dkiss_fft_scalar=float` SwiftPM refuses; the define is set here instead.
#ifndef MOTIONPREP_CKissFFT_H
#define MOTIONPREP_CKissFFT_H
#ifndef kiss_fft_scalar
#define kiss_fft_scalar float
#endif
#include <kissfft/kiss_fft.h>
#include <kissfft/kiss_fftr.h>
#endif
