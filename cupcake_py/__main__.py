from cupcake_py.entry import main

main()
