// MotionResample: see README.md in this folder.
