// Shim for libdeflate: includes the library's public header; no logic.
#ifndef MOTIONPREP_CDeflate_H
#define MOTIONPREP_CDeflate_H
#include <libdeflate.h>
#endif
