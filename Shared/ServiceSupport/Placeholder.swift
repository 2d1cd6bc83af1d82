enum ServiceSupportPlaceholder {}
