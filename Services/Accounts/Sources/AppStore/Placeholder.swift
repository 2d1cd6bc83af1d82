enum AppStorePlaceholder {}
