import Testing

@Test func placeholderPostgresTests() {}
