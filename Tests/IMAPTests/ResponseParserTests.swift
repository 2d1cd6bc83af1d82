@testable import MailwakeIMAP
import Testing

@Suite struct ResponseParserTests {
    private func parse(_ text: String) throws -> IMAPResponse { try IMAPResponseParser.parse(Array(text.utf8)) }

    @Test func aTaggedOKKeepsItsResponseCodeAndText() throws {
        #expect(try parse("M1 OK [READ-ONLY] Examine completed\r\n") == .tagged(tag: "M1", status: .ok, code: "READ-ONLY",
                                                                                text: "Examine completed"))
    }

    @Test func anUntaggedStatusCarriesUIDVALIDITY() throws {
        #expect(try parse("* OK [UIDVALIDITY 3857529045] UIDs valid\r\n") == .status(.ok, code: "UIDVALIDITY 3857529045",
                                                                                     text: "UIDs valid"))
    }

    @Test func aNumberedResponseHasItsNumber() throws {
        #expect(try parse("* 172 EXISTS\r\n") == .data(name: "EXISTS", number: 172, values: []))
    }

    @Test func aContinuationIsRecognized() throws {
        #expect(try parse("+ idling\r\n") == .continuation("idling"))
    }

    @Test func aFetchWithALiteralSectionAndQuotedDateParses() throws {
        let header = "From: a@b\r\nSubject: hi\r\n\r\n"
        let line = "* 3 FETCH (UID 42 INTERNALDATE \"17-Jul-1996 02:44:25 -0700\" RFC822.SIZE 4286 BODY[HEADER] " +
                   "{\(header.utf8.count)}\r\n\(header) BODY[TEXT]<0> {3}\r\nabc)\r\n"
        guard case .data("FETCH", 3, let values) = try parse(line), let list = values.first?.elements else {
            Issue.record("not a FETCH")
            return
        }
        #expect(list[0] == .atom("UID") && list[1].number == 42)
        #expect(list[3].text == "17-Jul-1996 02:44:25 -0700")
        #expect(list[6] == .atom("BODY[HEADER]") && list[7].bytes == Array(header.utf8))
        #expect(list[8] == .atom("BODY[TEXT]<0>") && list[9].bytes == Array("abc".utf8))
    }

    @Test func aSectionWithSpacesAndParenthesesIsOneAtom() throws {
        guard case .data(_, _, let values) = try parse("* 1 FETCH (BODY[HEADER.FIELDS (FROM SUBJECT)] {0}\r\n)\r\n"),
              let list = values.first?.elements else {
            Issue.record("not a FETCH")
            return
        }
        #expect(list[0] == .atom("BODY[HEADER.FIELDS (FROM SUBJECT)]"))
        #expect(list[1] == .string([]))
    }

    @Test func quotedStringsUnescapeAndNILIsNull() throws {
        #expect(try parse("* LIST (\\HasNoChildren) \"/\" \"a \\\"b\\\" \\\\c\"\r\n")
            == .data(name: "LIST", number: nil,
                     values: [.list([.atom("\\HasNoChildren")]), .string(Array("/".utf8)), .string(Array("a \"b\" \\c".utf8))]))
        #expect(try parse("* LIST () NIL INBOX\r\n") == .data(name: "LIST", number: nil, values: [.list([]), .null, .atom("INBOX")]))
    }

    @Test func literalBytesNeedNotBeUTF8() throws {
        let bytes: [UInt8] = Array("* 1 FETCH (BODY[HEADER] {2}\r\n".utf8) + [0xC4, 0xE3] + Array(")\r\n".utf8)
        guard case .data(_, _, let values) = try IMAPResponseParser.parse(bytes) else {
            Issue.record("not data")
            return
        }
        #expect(values.first?.elements?[1] == .string([0xC4, 0xE3]))
    }

    @Test(arguments: [
        "",                                 // nothing
        "M1 MAYBE done",                    // a tagged status that is not OK/NO/BAD
        "* 1 FETCH (UID 1",                 // an unclosed list
        "* 1 FETCH (BODY[] {10}\r\nabc)",   // a literal shorter than announced
        "* LIST () \"/\" \"unterminated",   // an unterminated quoted string
        "* 1 FETCH (BODY[] {5x}\r\nabcde)", // a malformed literal
    ])
    func malformedResponsesAreRefusedWithAReason(_ text: String) {
        #expect(throws: IMAPResponseParser.Malformed.self) { try IMAPResponseParser.parse(Array(text.utf8)) }
    }

    @Test func nestingBeyondTheLimitIsRefused() {
        let deep = "* 1 FETCH " + String(repeating: "(", count: 200) + String(repeating: ")", count: 200)
        #expect(throws: IMAPResponseParser.Malformed.self) { try IMAPResponseParser.parse(Array(deep.utf8)) }
    }

    @Test func aLineEndingInALiteralAnnouncementIsRecognized() {
        #expect(IMAPResponseReader.literalLength(endingLine: Array("* 1 FETCH (BODY[] {123}\r\n".utf8)) == 123)
        #expect(IMAPResponseReader.literalLength(endingLine: Array("A1 APPEND INBOX {7+}\r\n".utf8)) == 7)
        #expect(IMAPResponseReader.literalLength(endingLine: Array("* OK no literal}\r\n".utf8)) == nil)
        #expect(IMAPResponseReader.literalLength(endingLine: Array("* OK {}\r\n".utf8)) == nil)
    }
}
