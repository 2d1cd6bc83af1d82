import MailwakeBenchKit
import Testing

/// When an open-loop load client sends: the even and the Poisson spread of one rate.
@Suite("Arrival schedules")
struct ArrivalScheduleTests {
    @Test func anEvenScheduleSendsOneEveryIntervalFromZero() {
        #expect(ArrivalSchedule(count: 4, rate: 2000, pattern: .even).offsetsNS == [0, 500_000, 1_000_000, 1_500_000])
    }

    @Test func aPoissonScheduleSpansTheSameTimeAsTheEvenOneWithoutDecreasing() {
        let s = ArrivalSchedule(count: 20_000, rate: 2000, pattern: .poisson).offsetsNS
        #expect(s.count == 20_000 && s.first == 0)
        #expect(zip(s, s.dropFirst()).allSatisfy { $0 <= $1 })
        // The last gap ends at 10 s: the last arrival is one gap before it.
        #expect(s.last! < 10_000_000_000 && s.last! > 9_990_000_000)
    }

    @Test func aPoissonScheduleHasIndependentGapsWithTheRatesMean() {
        let s = ArrivalSchedule(count: 20_000, rate: 2000, pattern: .poisson).offsetsNS
        let gaps = zip(s, s.dropFirst()).map { Double($1 - $0) }
        // Exponential gaps of mean 500 µs: as many above the mean as e^-1 of them (36.8 %), and some under a tenth of it.
        let above = Double(gaps.filter { $0 > 500_000 }.count) / Double(gaps.count)
        #expect(abs(above - 0.368) < 0.02)
        #expect(gaps.contains { $0 < 50_000 })
    }

    @Test func theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        let a = ArrivalSchedule(count: 100, rate: 2000, pattern: .poisson, seed: 1)
        #expect(a == ArrivalSchedule(count: 100, rate: 2000, pattern: .poisson, seed: 1))
        #expect(a != ArrivalSchedule(count: 100, rate: 2000, pattern: .poisson, seed: 2))
    }

    @Test func anEmptyScheduleHasNoTimes() {
        #expect(ArrivalSchedule(count: 0, rate: 2000, pattern: .poisson).offsetsNS.isEmpty)
    }
}
