public enum Placeholder2 {}
