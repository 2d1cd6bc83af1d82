enum HTTPTypesPlaceholder {}
