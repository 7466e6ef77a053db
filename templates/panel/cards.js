// The panel's entry cards (loaded before panel.js).
