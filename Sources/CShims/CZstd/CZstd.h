// Shim for libzstd: includes the library's public header; no logic.
#ifndef MOTIONPREP_CZstd_H
#define MOTIONPREP_CZstd_H
#include <zstd.h>
#include <zstd_errors.h>
#endif
