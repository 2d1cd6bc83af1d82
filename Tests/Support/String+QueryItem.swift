extension String {
    /// This URL with `name=value` added to its query (`?` or `&`, whichever it needs); `value` is used as given.
    public func appendingQueryItem(_ name: String, _ value: String) -> String {
        self + (contains("?") ? "&" : "?") + name + "=" + value
    }
}
