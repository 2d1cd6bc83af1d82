import Testing

@Test func placeholderHTTPClientTests() {}
