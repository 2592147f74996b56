// Shim for libxxhash (Debian's libxxhash-dev): includes the library's public header; no logic.
#ifndef MOTIONPREP_CXXHash_H
#define MOTIONPREP_CXXHash_H
#include <xxhash.h>
#endif
