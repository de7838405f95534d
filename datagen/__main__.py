from datagen.cli import main

main()
