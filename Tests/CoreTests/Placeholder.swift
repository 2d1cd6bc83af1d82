import Testing

@Test func placeholderCoreTests() {}
