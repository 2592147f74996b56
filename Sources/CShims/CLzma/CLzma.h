// Shim for liblzma (xz): includes the library's public header; no logic.
#ifndef MOTIONPREP_CLzma_H
#define MOTIONPREP_CLzma_H
#include <lzma.h>
#endif
