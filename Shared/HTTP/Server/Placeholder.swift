enum ModulePlaceholder {}
