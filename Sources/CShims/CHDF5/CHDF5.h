// Shim for libhdf5 (Debian's serial build, 1.10.x). HDF5 exposes its predefined types and
// property-list defaults as macros that expand to globals valid only after H5open(); Swift cannot
// import those macros, so each is wrapped in a prefixed static-inline function. No logic here.
#ifndef MOTIONPREP_CHDF5_H
#define MOTIONPREP_CHDF5_H
#include <hdf5.h>

static inline hid_t CHDF5_H5P_DEFAULT(void) { return H5P_DEFAULT; }
static inline hid_t CHDF5_H5S_ALL(void) { return H5S_ALL; }
static inline hsize_t CHDF5_H5S_UNLIMITED(void) { return H5S_UNLIMITED; }
static inline unsigned CHDF5_H5F_ACC_TRUNC(void) { return H5F_ACC_TRUNC; }
static inline unsigned CHDF5_H5F_ACC_EXCL(void) { return H5F_ACC_EXCL; }
static inline unsigned CHDF5_H5F_ACC_RDONLY(void) { return H5F_ACC_RDONLY; }
static inline unsigned CHDF5_H5F_OBJ_ALL(void) { return H5F_OBJ_ALL; }
static inline hid_t CHDF5_H5P_FILE_CREATE(void) { return H5P_FILE_CREATE; }
static inline hid_t CHDF5_H5P_FILE_ACCESS(void) { return H5P_FILE_ACCESS; }
static inline hid_t CHDF5_H5P_DATASET_CREATE(void) { return H5P_DATASET_CREATE; }
static inline hid_t CHDF5_H5P_DATASET_XFER(void) { return H5P_DATASET_XFER; }
static inline hid_t CHDF5_H5P_ATTRIBUTE_CREATE(void) { return H5P_ATTRIBUTE_CREATE; }
static inline hid_t CHDF5_H5P_GROUP_CREATE(void) { return H5P_GROUP_CREATE; }
static inline hid_t CHDF5_H5P_LINK_CREATE(void) { return H5P_LINK_CREATE; }
static inline hid_t CHDF5_H5T_NATIVE_FLOAT(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t CHDF5_H5T_NATIVE_DOUBLE(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t CHDF5_H5T_NATIVE_INT32(void) { return H5T_NATIVE_INT32; }
static inline hid_t CHDF5_H5T_NATIVE_INT64(void) { return H5T_NATIVE_INT64; }
static inline hid_t CHDF5_H5T_NATIVE_UINT8(void) { return H5T_NATIVE_UINT8; }
static inline hid_t CHDF5_H5T_IEEE_F32LE(void) { return H5T_IEEE_F32LE; }
static inline hid_t CHDF5_H5T_IEEE_F64LE(void) { return H5T_IEEE_F64LE; }
static inline hid_t CHDF5_H5T_STD_I32LE(void) { return H5T_STD_I32LE; }
static inline hid_t CHDF5_H5T_STD_I64LE(void) { return H5T_STD_I64LE; }
static inline hid_t CHDF5_H5T_C_S1(void) { return H5T_C_S1; }
static inline hid_t CHDF5_H5E_DEFAULT(void) { return H5E_DEFAULT; }
static inline size_t CHDF5_H5T_VARIABLE(void) { return H5T_VARIABLE; }
static inline hid_t CHDF5_H5FD_SEC2(void) { return H5FD_SEC2; }
/* The address H5Dget_chunk_info_by_coord gives a chunk that was never written. */
static inline haddr_t CHDF5_HADDR_UNDEF(void) { return HADDR_UNDEF; }

#endif
