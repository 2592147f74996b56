import MotionprepCLI

MotionprepCommand.main(CommandLine.arguments)
