// Shim for libcrypto: includes the library's public header; no logic.
#ifndef MOTIONPREP_CCrypto_H
#define MOTIONPREP_CCrypto_H
#include <openssl/evp.h>
#endif
