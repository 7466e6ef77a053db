// placeholder: the panel's script
