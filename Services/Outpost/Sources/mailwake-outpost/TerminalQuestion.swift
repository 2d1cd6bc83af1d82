import Foundation
import MailwakeCore

/// Asks `question` on the terminal and reads the answer on a thread of its own; only `y` or `yes` confirms.
func confirmOnTerminal(_ question: String) async -> Bool {
    StandardStreams.write(question)
    let answer = await OwnThread.run(name: "mw-ask") { readLine(strippingNewline: true) }
    return ["y", "yes"].contains(answer?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
}
