"""mtsig: is the difference between two MT systems real?"""

__version__ = "0.1.0"
