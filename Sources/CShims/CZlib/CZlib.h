// Shim for zlib: includes the library's public header; no logic.
#ifndef MOTIONPREP_CZlib_H
#define MOTIONPREP_CZlib_H
#include <zlib.h>
#endif
