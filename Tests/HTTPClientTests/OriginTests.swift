@testable import MailwakeHTTPClient
import Testing

/// What logs may say about a request's target: scheme and authority only.
@Suite struct OriginTests {
    @Test(arguments: [
        ("https://push.example.net/3/device/abc?x=1", "https://push.example.net"),
        ("HTTPS://Push.Example.net:8443/path", "https://Push.Example.net:8443"),
        ("https://user:secret@host.example/p", "https://host.example"),
        ("http://[::1]:80#frag", "http://[::1]:80"),
        ("https://host.example?token=1", "https://host.example"),
        ("no scheme here", "?"),
        ("", "?"),
    ])
    func originKeepsSchemeAndHostAndDropsPathQueryAndUserInfo(url: String, origin: String) {
        #expect(HTTPClient.origin(of: url) == origin)
    }
}
