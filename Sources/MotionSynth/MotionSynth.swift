// MotionSynth: see README.md in this folder.
