"""`python -m cupcake_py`: the console entry point (`cupcake`) run as a module."""

from cupcake_py.app.entry import main

if __name__ == "__main__":  # (not when a worker process re-imports the main module)
    main()
