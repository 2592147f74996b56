// MotionWindowing: see README.md in this folder.
