/// One hop of a notification's way to the lock screen, as the outpost measures it (PROTOCOL.md §13).
enum DeliveryHop: String, Sendable, CaseIterable {
    /// The mail server received the mail (INTERNALDATE, else the Date header) → the outpost noticed it.
    case receivedToNoticed = "received_to_noticed"
    /// The outpost noticed it → the relay answered 202 (the outpost's clock).
    case noticedToAccepted = "noticed_to_accepted"
    /// The relay accepted it (outpost clock) → APNs accepted the push (relay clock).
    case acceptedToSent = "accepted_to_sent"
    /// APNs accepted the push → the device showed it (both the relay's times).
    case sentToDisplayed = "sent_to_displayed"
    /// The outpost noticed it → the device showed it: the whole way from the outpost.
    case noticedToDisplayed = "noticed_to_displayed"

    var help: String {
        switch self {
        case .receivedToNoticed: "mail server received (INTERNALDATE, else Date header) to outpost noticed"
        case .noticedToAccepted: "outpost noticed to relay answered 202"
        case .acceptedToSent: "relay accepted to APNs accepted the push"
        case .sentToDisplayed: "APNs accepted to the device showed it (its receipt)"
        case .noticedToDisplayed: "outpost noticed to the device showed it"
        }
    }
}
