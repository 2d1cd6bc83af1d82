import Foundation
@testable import MailwakeBenchKit
import Testing

/// `--relay-cpus`: the relay alone on some CPUs, everything else on the rest.
@Suite("CPU placement")
struct CPUPlacementTests {
    @Test func listsAreReadAsTasksetReadsThem() {
        #expect(CPUPlacement.parse("0") == [0])
        #expect(CPUPlacement.parse("0-2,5") == [0, 1, 2, 5])
        #expect(CPUPlacement.parse("3,1,1") == [1, 3])
    }

    @Test(arguments: ["", "x", "1-0", "0,,1", "-1", "+1", "0-", "1 2", "0-1-2", "4096"])
    func aMalformedListIsRefused(_ list: String) {
        #expect(CPUPlacement.parse(list) == nil)
        #expect(throws: BenchError.self) { try CPUPlacement(relayList: list, online: [0, 1]) }
    }

    @Test func theRestGetsEveryOtherCPU() throws {
        let placement = try CPUPlacement(relayList: "1", online: [0, 1, 2, 3])
        #expect(placement.relay == [1])
        #expect(placement.others == [0, 2, 3])
        #expect(placement.othersList == "0,2,3")
    }

    @Test func aCPUThisProcessMayNotUseIsRefused() {
        #expect(throws: BenchError.self) { try CPUPlacement(relayList: "2", online: [0, 1]) }
    }

    @Test func aPlacementThatLeavesNoCPUForTheRestIsRefused() {
        #expect(throws: BenchError.self) { try CPUPlacement(relayList: "0-1", online: [0, 1]) }
    }

    @Test(.enabled(if: CPUPlacement.allowedCPUs().count >= 2, "needs two CPUs"))
    func theRelayLaunchRunsOnTheRelaysCPUsOnly() throws {
        let online = CPUPlacement.allowedCPUs()
        let placement = try CPUPlacement(relayList: String(online.last!), online: online)
        let launch = placement.relayLaunch("/bin/grep", ["^Cpus_allowed_list:", "/proc/self/status"])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: launch.executable)
        p.arguments = launch.arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) == placement.relayList)
    }

    @Test func aProcessThatIsNotTheConnectionsBackendIsNotMoved() throws {
        let placement = try CPUPlacement(relayList: "0", online: [0, 1])
        #expect(throws: BenchError.self) { try placement.placePostgres(backendPID: getpid(), clientPort: 5432) }
        #expect(throws: BenchError.self) { try placement.placePostgres(backendPID: getpid(), clientPort: nil) }
        #expect(throws: BenchError.self) { try placement.placePostgres(backendPID: Int32.max, clientPort: 5432) }
    }
}
