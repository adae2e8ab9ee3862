"""The Great Sea's map read by the camera: Ships and Forts per region (`reader.read_regions`)."""
