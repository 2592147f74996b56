// Shim for libbz2: includes the library's public header; no logic. (bzlib.h needs stdio.h's
// FILE for its stdio functions, which motionprep does not use.)
#ifndef MOTIONPREP_CBzip2_H
#define MOTIONPREP_CBzip2_H
#include <stdio.h>
#include <bzlib.h>
#endif
