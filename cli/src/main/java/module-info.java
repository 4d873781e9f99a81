/**
 * Tierlock's operator command line: {@code java --module dev.tierlock.cli/dev.tierlock.cli.TierlockCli}.
 * It exports nothing and names no datastore module: the providers of the datastore modules beside
 * it are found through core's {@code uses}, and through its own for {@code tierlock doctor}, which
 * opens the datastore itself to read it with every write refused. Picocli reads and sets the commands' options
 * reflectively, so their package is open to it.
 */
module dev.tierlock.cli {
  requires dev.tierlock.core;
  requires com.fasterxml.jackson.core;
  requires info.picocli;
  requires org.slf4j;
  requires static org.jspecify;

  uses dev.tierlock.spi.DatastoreProvider;

  provides org.slf4j.spi.SLF4JServiceProvider with dev.tierlock.cli.Voice;

  opens dev.tierlock.cli to info.picocli;
}
