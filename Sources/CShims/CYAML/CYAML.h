// Shim for libyaml: includes the library's public header; no logic.
#ifndef MOTIONPREP_CYAML_H
#define MOTIONPREP_CYAML_H
#include <yaml.h>
#endif
