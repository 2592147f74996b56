// swift-tools-version: 6.0
// An app-side example of motionprep's live library: another Swift package that depends on the
// `MotionLive` product (here by path; an app would use the repository's URL). See README.md.
import PackageDescription

let package = Package(
    name: "live-replay",
    dependencies: [.package(name: "motionprep", path: "../..")],
    targets: [
        .executableTarget(name: "live-replay", dependencies: [.product(name: "MotionLive", package: "motionprep")]),
        .executableTarget(name: "live-check", dependencies: [.product(name: "MotionLive", package: "motionprep")]),
    ]
)
