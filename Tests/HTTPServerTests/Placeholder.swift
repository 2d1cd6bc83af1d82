import Testing

@Test func placeholderHTTPServerTests() {}
