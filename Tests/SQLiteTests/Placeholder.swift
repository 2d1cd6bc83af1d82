import Testing

@Test func placeholderSQLiteTests() {}
