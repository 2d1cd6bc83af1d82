import Testing

@Test func accountsPlaceholder() {}
