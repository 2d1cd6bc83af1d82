import Testing

@Test func appStorePlaceholder() {}
