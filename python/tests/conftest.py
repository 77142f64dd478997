# The plugin under test is the installed package's (entry point pytest11): no fixture here.
# pytester runs pytest sessions of its own, for the plugin's failure paths.
pytest_plugins = ["pytester"]
