"""Dataset statistics: label distributions and end-to-end document statistics (Taillé et al. 2020 integrity checks)."""
