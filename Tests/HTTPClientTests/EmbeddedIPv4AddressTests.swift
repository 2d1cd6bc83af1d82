import MailwakeHTTPClient
import Testing

/// `publicAddressesOnly` also refuses IPv6 addresses that carry or reach an
/// IPv4 address another way (a translator or relay would take the request
/// to the embedded, possibly internal, IPv4 address) and deprecated site-local ones.
@Suite struct EmbeddedIPv4AddressTests {
    @Test(arguments: [
        "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::808:808", "64:ff9b:1::a00:1",   // NAT64 (well-known and local-use prefixes)
        "2002:7f00:1::1", "2002:a00:1::", "2002:808:808::1",                          // 6to4
        "::127.0.0.1", "::10.0.0.1", "::8.8.8.8",                                     // IPv4-compatible
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",                                       // Teredo
        "fec0::1", "feff:ffff::1",                                                    // site-local fec0::/10
    ])
    func isNotPublic(_ address: String) {
        #expect(!HTTPClient.isPublicAddress(address), "\(address)")
    }

    @Test(arguments: ["2606:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888", "64:ff9c::1", "2003::1"])
    func neighboursStayPublic(_ address: String) {
        #expect(HTTPClient.isPublicAddress(address), "\(address)")
    }
}
