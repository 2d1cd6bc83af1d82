enum AccountsPlaceholder {}
