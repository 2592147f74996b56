import Foundation

// Recording folders named after the activity (`iphone13/Squats/`, `Walking_2/`): how `init` tells
// an activity's name from a numbered recording or a person (docs/commands.md, "init", Labels).
extension PipelineDraft {
    /// Words that begin a token of an activity's name (`Walking`, `WalkingUpstairs`, `sit_down`,
    /// `Squats`), lowercased; tokens are split at non-letters and at a lowercase-to-uppercase
    /// change. Only words no common first name begins with (`step` would match Stephen).
    package static let activityWords = ["walk", "run", "jog", "sit", "stand", "lying", "laying", "squat", "jump", "stair", "upstair",
                                "downstair", "cycl", "bik", "push", "pull", "lunge", "plank", "climb", "danc", "fall",
                                "driv", "swim", "sleep", "drink", "cook", "clean", "brush", "bend", "kneel", "crawl",
                                "burpee", "crunch", "situp", "deadlift", "yoga", "elevator", "escalator", "idle", "exercis",
                                "activit", "sport", "workout", "stretch", "shak"]

    package static func hasActivityWord(_ name: String) -> Bool {
        var tokens: [String] = [], current = ""
        var previousLower = false
        for ch in name {
            if !ch.isLetter {
                if !current.isEmpty { tokens.append(current); current = "" }
                previousLower = false
                continue
            }
            if ch.isUppercase && previousLower { tokens.append(current); current = "" }
            current.append(ch)
            previousLower = ch.isLowercase
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens.contains { t in let l = t.lowercased(); return activityWords.contains { l.hasPrefix($0) } }
    }

    /// The activity a recording folder's name gives: without the digits and separators
    /// (`-_ .()`) at either end (`Squats_2`, `Squats-2024-05-01` and `2024-05-01 Squats` are
    /// `Squats`; `rec-01` is `rec`; `Step2Up` stays).
    package static func activityName(_ name: String) -> String {
        name.trimmingCharacters(in: CharacterSet(charactersIn: "0123456789-_ .()"))
    }

}
